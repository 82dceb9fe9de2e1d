// Package docs holds the lab's documentation pages; its test checks that
// every relative link in them, and in the README, resolves.
package docs
