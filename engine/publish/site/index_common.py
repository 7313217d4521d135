"""What every Small LM Index page shares: the sync that fills the columns and charts still empty."""

from __future__ import annotations

# What fills the columns and charts that are empty until then (.github/workflows/index-sync.yml).
WEEKLY_SYNC = "the weekly index sync (Mondays, 05:17 UTC)"
