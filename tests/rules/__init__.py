"""Tests of the pure rules (jaslog.rules): legal plays, tricks, roem, scoring, trump selection."""
