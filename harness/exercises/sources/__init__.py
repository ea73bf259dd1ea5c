"""What an exercise is built from: a problem (`problems`: the corpus's and those a user's
project declares, `projects`), its pytest settings rewritten for a handout (`pytest_config`),
which of its files go where (`layout`), and how a handout names them (`handout_names`)."""
