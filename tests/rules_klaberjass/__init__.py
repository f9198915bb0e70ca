"""Klaberjass (rule book section 4): rules, fold, reports, oracle, properties."""
