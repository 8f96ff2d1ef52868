"""The window's panels a lesson page may show, and the views (tabs) of each, as plain names.

The engine knows no widgets: a view is a name, and the front end maps it to a tab of the panel
(:data:`PANEL_VIEWS` gives each view's tab index and the tab's English title, which
``tests/ui/test_ui_lesson_views.py`` checks against the real panels). A panel with one view
has the view ``main``. Where the tabs are: ``panel.tabs``, except cluster scaling
(``panel.explorer.tabs``); fusion's chart and savings are tabs only when the panel is narrow
(side by side in a splitter otherwise, where both views are in sight).
"""

from __future__ import annotations

from dataclasses import dataclass

from gpulab.lab import declare


@dataclass(frozen=True)
class View:
    """One view of a panel: its ``name`` in lesson files, the tab's ``index`` and English ``tab`` title
    ("" for a panel without tabs)."""

    name: str
    index: int = 0
    tab: str = ""


MAIN = (View("main"),)

# Panels not declared by a lab (the window's own pages, see ui/panels/__init__.py OWN_PAGES)
# whose labs a lesson may run; which labs each can run.
OWN_PANEL_LABS: dict[str, tuple[str, ...]] = {
    "cpu-vs-gpu": ("matmul", "vector-add"),
    "experiments": (),  # the generic run page runs every lab
    "trace": ("trace-doctor",),  # the Trace doctor page opens the lab's sample trace (a lesson's adapter)
}

PANEL_VIEWS: dict[str, tuple[View, ...]] = {
    "cpu-vs-gpu": (View("rate", 0, ""), View("time", 1, "Time (ms)"), View("race", 2, "Race")),
    "experiments": MAIN,
    "bandwidth": MAIN,
    "access-pattern": MAIN,
    "roofline": MAIN,
    "transfer": (View("sizes", 0, "Copy sizes"), View("round-trips", 1, "Round trips vs batch"),
                 View("both-ways", 2, "Both ways at once")),
    "streams": MAIN,
    "launch": MAIN,
    "fusion": (View("chart", 0, "Chart"), View("savings", 1, "Unfused vs fused")),
    "precision": MAIN,
    "topology": (View("node", 0, "Node"), View("network", 1, "Network"), View("matrix", 2, "Copy matrix (GB/s)")),
    "collectives": MAIN,
    "allreduce-steps": (View("steps", 0, "Step by step"), View("chart", 1, "algbw vs busbw")),
    "cluster-scaling": (View("allreduce", 0, "AllReduce"), View("scaling", 1, "Efficiency, goodput"),
                        View("planner", 2, "Planner")),
    "squeeze": MAIN,
    "latency": (View("ladder", 0, "Latency ladder"), View("calculator", 1, "Occupancy"),
                View("hiding", 2, "Latency hiding")),
    "scheduling": (View("gantt", 0, "Gantt"), View("utilisation", 1, "Utilisation"),
                   View("lost", 2, "Lost GPU-hours")),
    "trace": MAIN,
}
"""Views by panel name. The first view of a panel is the one a page gets when it names none."""

COMING_LABS: dict[str, str] = {}
"""Labs the curriculum needs that are not built yet (id -> what it is, in English); a page may
say its lab is coming with one of these ids. When one is built it joins the registry, and the
test that no coming id is a registered lab asks for the pages to be made live. None is coming
now: the last, the trace doctor inside a lesson, is the ``trace-doctor`` lab."""


def default_panel(lab: str) -> str:
    """The panel that shows ``lab``: its own page if it declares one, else the generic run page."""
    entry = declare.registry().get(lab)
    return entry.lab.page if entry is not None and entry.lab.page else "experiments"


def panels_for(lab: str) -> tuple[str, ...]:
    """Every panel that can show ``lab``: its own (or the generic one) and any own panel made for it."""
    own = tuple(name for name, labs in OWN_PANEL_LABS.items() if lab in labs)
    return (default_panel(lab), *own, *(("experiments",) if default_panel(lab) != "experiments" else ()))


def views(panel: str) -> tuple[View, ...]:
    """The views of ``panel``; () for a panel lessons do not know."""
    return PANEL_VIEWS.get(panel, ())


def view(panel: str, name: str) -> View | None:
    """The view ``name`` of ``panel`` (the panel's first view when ``name`` is ""), or None."""
    known = views(panel)
    if not name:
        return known[0] if known else None
    return next((v for v in known if v.name == name), None)
