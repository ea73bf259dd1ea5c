"""One module per bug family; each exports `MUTATORS`, the tuple of its mutator classes."""
