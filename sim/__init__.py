"""Scheduler simulation over archive views (policies, metrics, shaking, resampling)."""
