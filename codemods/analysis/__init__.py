"""What rules share: the break catalogue and analysis, scopes and bindings, module evidence,
third-party lookup, outline and unroll planning, compile sites, small CST helpers."""
