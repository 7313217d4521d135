"""Tests of engine/analysis."""
