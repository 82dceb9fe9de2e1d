package server

import (
	"context"
	"errors"
	"fmt"

	"github.com/labstack/echo/v4"

	"fencelab/server/store"
)

// checkShown fails with a store.Gone error, its message the public
// reason, when the operators have hidden the run id. It asks the store
// every time, not a copy in memory: a run hidden through any server, or by
// `fencelab admin hide` beside them, is gone at the next request.
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
// presentation, its JSON): a hidden run answers 410 before any page is
// taken from the page cache. When the store cannot say, the request goes
// on as before takedowns: a cached page is served (nobody can hide a run
// while the store is down), anything else meets the same failure.
func (s *Server) shown(h echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		id, _ := splitSuffix(c.Param("id"))
		err := s.checkShown(c.Request().Context(), id)
		if store.CodeOf(err) == store.Gone {
			return err
		}
		return h(c)
	}
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
