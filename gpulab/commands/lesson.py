"""``gpulab lesson [N] [--page P] [--lang zh|en] [--run] [--recorded]``: the lesson track in a terminal.

Without N, the chapters and their pages; with N, the chapter's pages; with ``--page``, one page
(text, lab, preset, try-this, facts with sources). ``--run`` runs the page's preset through the
lab's own ``run`` (as ``gpulab run`` does) and prints the big number read from that run;
``--recorded`` replays the page's recorded result instead, when it has one.
"""

from __future__ import annotations

import argparse
import sys
import threading

from gpulab import lessons
from gpulab.catalogue import Message, msg, render
from gpulab.lab.base import ExperimentError
from gpulab.lessons import BigNumber, Chapter, Page


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("lesson", help="the lesson track: list the chapters, show a page, run its lab")
    parser.add_argument("chapter", nargs="?", type=int, help="chapter number (0-5); none lists them all")
    parser.add_argument("--page", help="page number (1-based) or id")
    parser.add_argument("--lang", choices=("zh", "en"), default="zh", help="language (default zh)")
    parser.add_argument("--run", action="store_true", help="run the page's preset and print its big number")
    parser.add_argument("--recorded", action="store_true", help="with --run: replay the page's recording if it has one")
    parser.set_defaults(func=run_lesson)


def run_lesson(args: argparse.Namespace) -> int:
    try:
        if args.chapter is None:
            _print_index(lessons.chapters(), args.lang)
            return 0
        chapter = lessons.chapter(args.chapter)
        if args.page is None:
            _print_chapter(chapter, args.lang)
            return 0
        page = chapter.page(args.page)
    except KeyError as exc:
        print(f"gpulab lesson: {exc.args[0]}", file=sys.stderr)
        return 2
    except lessons.LessonFormatError as exc:
        print(f"gpulab lesson: {exc}", file=sys.stderr)
        return 2
    _print_page(chapter, page, args.lang)
    if not args.run or not page.is_live:
        return 0
    return _run_page(page, args.lang, args.recorded)


def _say(message: Message, lang: str) -> None:
    print(render(message, lang))


def _print_index(chapters: tuple[Chapter, ...], lang: str) -> None:
    for chapter in chapters:
        _say(msg("lesson.cli.chapter", number=chapter.number, title=chapter.title.get(lang)), lang)
        _print_page_list(chapter, lang)


def _print_chapter(chapter: Chapter, lang: str) -> None:
    _say(msg("lesson.cli.chapter", number=chapter.number, title=chapter.title.get(lang)), lang)
    print(chapter.summary.get(lang))
    _print_page_list(chapter, lang)


def _print_page_list(chapter: Chapter, lang: str) -> None:
    for index, page in enumerate(chapter.pages, 1):
        lab = page.lab or f"({lessons.COMING_LABS[page.coming]})"
        print(f"  {index}. [{page.id}] {page.title.get(lang)}  — {lab}")


def _print_page(chapter: Chapter, page: Page, lang: str) -> None:
    index = chapter.pages.index(page) + 1
    _say(msg("lesson.cli.chapter", number=chapter.number, title=chapter.title.get(lang)), lang)
    _say(msg("lesson.cli.page", index=index, count=len(chapter.pages), title=page.title.get(lang)), lang)
    print()
    print(page.text.get(lang))
    print()
    if page.is_live:
        _say(msg("lesson.cli.lab", lab=page.lab, panel=lessons.panel_of(page), view=lessons.view_of(page)), lang)
        _say(msg("lesson.cli.preset", preset=" ".join(page.preset) or "-"), lang)
        if page.recording:
            _say(msg("lesson.cli.recording", file=page.recording), lang)
    else:
        _say(msg("lesson.cli.coming", lab=lessons.COMING_LABS[page.coming]), lang)
    if page.try_this is not None:
        _say(msg("lesson.cli.try", text=page.try_this.text.get(lang)), lang)
        if page.try_this.change:
            _say(msg("lesson.cli.change", change=" ".join(page.try_this.change)), lang)
    if page.number is not None:
        _say(msg("lesson.cli.number-spec", label=msg(lessons.NUMBER_LABEL_PREFIX + page.number.label)), lang)
    if page.facts:
        _say(msg("lesson.cli.facts"), lang)
        for fact in page.facts:
            print(f"  - {fact.text.get(lang)}")
            source = f"{fact.source.cite} <{fact.source.url}>" if fact.source.url else fact.source.cite
            print(f"    {render(msg('lesson.cli.source', source=source), lang)}")
    if page.is_live:
        _say(msg("lesson.cli.run-hint", chapter=chapter.number, page=index), lang)


def _run_page(page: Page, lang: str, recorded: bool) -> int:
    print()
    _say(msg("lesson.cli.running", lab=page.lab), lang)
    from gpulab.commands.interrupt import SignalGuard

    with SignalGuard(threading.Event()) as guard:
        try:
            result = lessons.run_page(page, cancel_event=guard.cancel, recorded=recorded)
        except ExperimentError as exc:  # a run that could not run (Cancelled included) is one line
            print(f"gpulab lesson: {page.lab}: {exc}", file=sys.stderr)
            return 130 if guard.fired is not None else 1
    try:
        number = lessons.big_number(page, result)
    except lessons.MissingNumber as exc:
        _say(msg("lesson.cli.no-number", problem=str(exc)), lang)
        return 1
    _print_number(number, lang)
    return 0


def _print_number(number: BigNumber, lang: str) -> None:
    _say(msg("lesson.cli.number", value=number.text(), unit=number.unit, label=number.label), lang)
    device = f"{number.device} / {number.per_device}" if number.per_device else number.device
    if number.replayed:
        _say(msg("lesson.cli.number-replayed", kind=msg(f"provenance.{number.original_kind or 'measured'}"),
                 device=device, machine=number.machine or "?", date=number.date), lang)  # fmt: skip
    else:
        _say(msg("lesson.cli.number-from", kind=msg(f"provenance.{number.kind}"), device=device), lang)
