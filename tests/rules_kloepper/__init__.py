"""Kloepper (rule book section 5): rules, partnerships, hidden information, scoring."""
