"""What is handed out: challenge packs (`pack`, one per candidate with `candidates`), the
statement and the key (`statement`), JSONL task instances (`instances`) and reproducible
archives (`archive`)."""
