"""US states by name and by postal code: a sheet writes "VA" where an answer says
"Virginia" ("Chantilly, Virginia" from the row "city: Chantilly; state: VA").

:func:`state_code` and :func:`state_name` give the other form of a folded name
(support.py's folding: lower case, single spaces, a space at each end), so that a name
an answer states counts as held by a passage that writes it the other way.
"""

from __future__ import annotations

_STATES = (
    "AL Alabama, AK Alaska, AZ Arizona, AR Arkansas, CA California, CO Colorado, "
    "CT Connecticut, DE Delaware, DC District of Columbia, FL Florida, GA Georgia, "
    "HI Hawaii, ID Idaho, IL Illinois, IN Indiana, IA Iowa, KS Kansas, KY Kentucky, "
    "LA Louisiana, ME Maine, MD Maryland, MA Massachusetts, MI Michigan, MN Minnesota, "
    "MS Mississippi, MO Missouri, MT Montana, NE Nebraska, NV Nevada, NH New Hampshire, "
    "NJ New Jersey, NM New Mexico, NY New York, NC North Carolina, ND North Dakota, "
    "OH Ohio, OK Oklahoma, OR Oregon, PA Pennsylvania, RI Rhode Island, SC South Carolina, "
    "SD South Dakota, TN Tennessee, TX Texas, UT Utah, VT Vermont, VA Virginia, "
    "WA Washington, WV West Virginia, WI Wisconsin, WY Wyoming, PR Puerto Rico"
)
#: Folded state name -> folded postal code (" virginia " -> " va "), and back.
_BY_NAME = {
    f" {name.lower()} ": f" {code.lower()} "
    for code, name in (entry.strip().split(" ", 1) for entry in _STATES.split(","))
}
_BY_CODE = {code: name for name, code in _BY_NAME.items()}


def state_code(name: str) -> str | None:
    """The folded postal code of the folded state ``name`` (" va " for " virginia ")."""
    return _BY_NAME.get(name)


def state_name(code: str) -> str | None:
    """The folded name of the state whose folded postal code is ``code``."""
    return _BY_CODE.get(code)
