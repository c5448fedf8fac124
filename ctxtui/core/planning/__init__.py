"""The plan: truncation, fresh tail, pruning, compaction need, overflow and rows."""
