"""The table of contents of Galaxy Gaming's 10-K (corpus/good/example-10k-1p.html), in
part: the rows a question names by their first cell ("Item 1A")."""

from __future__ import annotations

#: (item, title, page) of each row.
ITEMS = [
    ("1", "Business", 4),
    ("1A", "Risk Factors", 9),
    ("1B", "Unresolved Staff Comments", 9),
    ("2", "Properties", 9),
    ("3", "Legal Proceedings", 9),
    ("4", "Mine Safety Disclosures", 9),
    ("5", "Market for Registrant's Common Equity and Related Stockholder Matters", 10),
    ("7", "Management's Discussion and Analysis of Financial Condition", 12),
]
