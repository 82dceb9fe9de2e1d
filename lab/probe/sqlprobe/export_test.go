package sqlprobe

// Planned is a bound statement's text as it runs.
func Planned(st Statement) string { return st.plan.q }
