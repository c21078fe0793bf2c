"""Is this a tensor, and what does this argument bind to? The libcst inference the rules use
(:mod:`.cst`), the cheap ``ast`` evidence the index uses (:mod:`.ast`), and argument binding
(:mod:`.arguments`)."""
