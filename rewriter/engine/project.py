"""The scanned tree as one project: every file summarised, then linked, before any rule runs.

The batch (:mod:`rewriter.engine.batch`) summarises the files in parallel
(:func:`summarise_file`), links the summaries in this process
(:class:`codemods.analysis.project.link.Project`) and hands each file its
:class:`codemods.analysis.reach.ProjectFacts` with its chunk. A file
processed on its own (stdin, one file from the API) is its own project
(:func:`file_facts`).
"""

from __future__ import annotations

import ast
import os
import sys
from typing import Optional

from codemods.analysis.project.index import FileSummary, summarise
from codemods.analysis.project.link import LinkOptions, Project
from codemods.analysis.reach import ProjectFacts
from rewriter.engine.config import Settings
from rewriter.engine.fileio import SourceError, read_source


def project_root(settings: Settings, path: str) -> str:
    """The directory of the project's pyproject.toml, else the file's own directory."""
    if settings.source:
        return os.path.dirname(os.path.abspath(settings.source))
    return os.path.dirname(os.path.abspath(path))


def link_options(settings: Settings, path: str) -> LinkOptions:
    """What linking needs of the run's settings; ``path`` stands for where the project is."""
    return LinkOptions(
        settings.reach, settings.first_party, settings.third_party, project_root(settings, path), settings.compiled
    )


def summarise_file(path: str) -> Optional[FileSummary]:
    """The index's summary of the file at ``path`` (absolute); None when it cannot be read or parsed."""
    try:
        text = read_source(path).text
    except SourceError:
        return None
    return summarise(text, path)


def link(summaries: list[Optional[FileSummary]], settings: Settings, where: str) -> Project:
    project = Project([s for s in summaries if s is not None], link_options(settings, where))
    warn_unnamed([name for name in settings.compiled if not project.named(name)])
    return project


def warn_unnamed(names: list[str]) -> None:
    """The ``compiled`` names no function of the scanned files has (a run from the cache repeats it)."""
    for name in names:
        sys.stderr.write(f"gbfix: warning: compiled: no function of the scanned files is named {name}\n")


def file_facts(text: str, path: str, settings: Settings, tree: Optional[ast.Module] = None) -> ProjectFacts:
    """What a file says about itself when it is the whole scanned tree.

    A file Python cannot parse limits nothing, and its facts say so: the
    error is reported with its line.
    """
    summary = summarise(text, path, tree=tree)
    if summary is None:
        return ProjectFacts(mode="all", parsed=False)
    return Project([summary], link_options(settings, path)).facts_for(path)


def explain_reach(project: Project, path: str, line: int) -> str:
    """Why the code at ``path:line`` runs under compile, or why it does not (``--explain-reach``)."""
    where = f"{os.path.relpath(path).replace(os.sep, '/')}:{line}"
    index = project.unit_at(path, line)
    if index is None:
        if path not in project.files:
            return f"{where}: Python cannot parse the file; every function in it is looked at"
        return f"{where} is in no function: only functions run as compiled frames"
    summary, unit = project.units[index]
    head = f"{where} is in `{unit.qualname}` (lines {unit.first}-{unit.last})"
    reach = project.reach_of(index)
    if reach is not None:
        return f"{head}\n  runs under compile: {reach.describe()}"
    if index in project.opaque:
        return f"{head}\n  not under compile: a decorator keeps Dynamo out of it (or makes its result a constant)"
    callers = sorted({project.units[c][1].qualname for c in project.callers(index)})
    called = f"; called by {', '.join(f'`{c}`' for c in callers[:8])}, none of them under compile" if callers else ""
    return (
        f"{head}\n  not under compile: no module forward, torch.compile target or function they call reaches it{called}"
    )
