"""Running many files: one program's analysis, its record, executors, the JSONL file."""
