"""The Board and what renders it: leaderboard.json, the single-file board and the MkDocs site."""
