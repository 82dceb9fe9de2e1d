package lab

// Version is the engine's version, stored with every saved run. Change it
// whenever a decision, reason or violation of any trace could change, so
// that a saved run can tell that today's engine would say something else.
const Version = "2.0.0"
