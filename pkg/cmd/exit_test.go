package cmd

import (
	"errors"
	"fmt"
	"testing"
)

func TestCodeOf(t *testing.T) {
	if got := codeOf(errors.New("plain")); got != ExitError {
		t.Errorf("plain error: %d", got)
	}
	if got := codeOf(fmt.Errorf("wrapped: %w", &exitError{code: ExitTimeout})); got != ExitTimeout {
		t.Errorf("wrapped exitError: %d", got)
	}
}
