"""citefix's prompts: one file per prompt, each with a name and a version (see README.md beside this file)."""
