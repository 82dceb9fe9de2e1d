package server

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"

	"fencelab/server/store"
)

// checkShown fails with a store.Gone error, its message the public
// reason, when the operators have hidden the run id, and with
// store.ErrNotFound when no run has it (purged). It asks the store every
// time, not a copy in memory: a run hidden or purged through any server,
// or by `fencelab admin` beside them, is gone at the next request.
func (s *Server) checkShown(ctx context.Context, id string) error {
	if s.takedowns == nil || !validID(id) {
		return nil
	}
	reason, hidden, err := s.takedowns.Hidden(ctx, id)
	if err != nil {
		return fmt.Errorf("check run %s: %w", id, err)
	}
	if hidden {
		return fmt.Errorf("run %s: %w", id, &store.Error{Code: store.Gone, Message: reason})
	}
	return nil
}

// shown guards a route of one run (its page, exports, picture, embed and
// presentation, its JSON), and is where the run's id is read, once: the
// :id segment as the client spelled it is percent-decoded, its suffix
// split off where the route takes one (withSuffix), and the id checked.
// What is not an id answers 404 before any query; a hidden run answers 410
// before any page is taken from the page cache, and a purged run answers
// 404 there too. The handlers beneath read the decoded segment as :id,
// and the page cache keys on the canonical
// path (canonicalPath), so that /r/%35… and /r/5… are one page, and one
// takedown. When the store cannot say whether the run is hidden, the
// request goes on as before takedowns: a cached page is served (nobody
// can hide a run while the store is down), anything else meets the same
// failure.
func (s *Server) shown(withSuffix bool, h echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		segment, err := decodedSegment(c)
		if err != nil {
			return store.ErrNotFound
		}
		id, suffix := segment, ""
		if withSuffix {
			id, suffix = splitSuffix(segment)
		}
		if !validID(id) {
			return store.ErrNotFound
		}
		err = s.checkShown(c.Request().Context(), id)
		if code := store.CodeOf(err); code == store.Gone || code == store.NotFound {
			return err
		}
		c.SetParamValues(segment)
		c.Set(canonicalPathKey, strings.Replace(c.Path(), ":id", id, 1)+dotSuffix(suffix))
		return h(c)
	}
}

// decodedSegment is the :id segment percent-decoded once. Echo routes on
// the path as the client escaped it only when that differs from the
// standard escaping of the decoded path (URL.RawPath is set); otherwise
// it routes on the decoded path, and the segment is decoded already:
// decoding it again made /r/%2530… the page of /r/0…, where it names the
// id "%30…", which is none.
func decodedSegment(c echo.Context) (string, error) {
	if c.Request().URL.RawPath == "" {
		return c.Param("id"), nil
	}
	return url.PathUnescape(c.Param("id"))
}

// canonicalPathKey holds, in a request's context, the path of the run it
// names as the lab spells it, for the page cache's key.
const canonicalPathKey = "fencelab.canonicalPath"

func dotSuffix(suffix string) string {
	if suffix == "" {
		return ""
	}
	return "." + suffix
}

// goneMessage is what the public reads about a hidden run: the operators'
// reason after a fixed sentence, so that an empty or terse reason still
// says what happened.
func goneMessage(err error) string {
	const taken = "This run was taken down by the lab’s operators."
	var e *store.Error
	if !errors.As(err, &e) || e.Message == "" || e == store.ErrGone {
		return taken
	}
	return taken + " Reason: " + e.Message
}
