"""Tests of engine/commands."""
