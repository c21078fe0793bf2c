"""What decides how little libcst sees: the text screen, statement facts, skeletons."""
