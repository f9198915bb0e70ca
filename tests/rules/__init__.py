"""Tests of the pure rules (jaslog.engine): legal plays, tricks, roem, scoring, trump selection."""
