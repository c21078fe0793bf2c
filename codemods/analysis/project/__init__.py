"""Does compiled code reach this? The project index (one ``ast`` reading per file), its linking
across files, and the libcst reading of where a file's own compiled code starts."""
