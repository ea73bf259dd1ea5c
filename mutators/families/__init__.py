"""One subpackage per bug family, named after its `Family` value; each exports `MUTATORS`, the
tuple of its mutator classes in the order the registry proposes them."""
