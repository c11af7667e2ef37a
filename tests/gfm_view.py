"""cmark-gfm's view of Markdown documents, for the differential test of the
publication reader (tests/publication_gfm.rs, fuzz/harness_gfm.rs).

cmark-gfm itself (GitHub's renderer, 0.29.0.gfm.13 as bundled by the PyPI
package cmarkgfm pinned in scripts/requirements-test.txt) parses each
document with GitHub's extensions (table, autolink, tagfilter,
strikethrough, tasklist) and footnotes, and the tree is printed in the
shape proofpack's `Tree::view` prints: per block its kind, source line,
containers and rendered text; per table its rows of cell texts. cmarkgfm's
Python API renders HTML only, so the library's exported C functions are
called directly through ctypes.

Usage: gfm_view.py FILE...   one JSON array per file, one per line
       gfm_view.py --serve   length-prefixed (4 bytes, big-endian) documents
                             on stdin, length-prefixed JSON arrays on stdout
"""
import ctypes
import glob
import json
import os
import struct
import sys

import cmarkgfm

_so = glob.glob(os.path.join(os.path.dirname(cmarkgfm.__file__), "_cmark*.so"))[0]
lib = ctypes.CDLL(_so)
vp = ctypes.c_void_p
for name, res, args in [
    ("cmark_gfm_core_extensions_ensure_registered", None, []),
    ("cmark_parser_new", vp, [ctypes.c_int]),
    ("cmark_find_syntax_extension", vp, [ctypes.c_char_p]),
    ("cmark_parser_attach_syntax_extension", ctypes.c_int, [vp, vp]),
    ("cmark_parser_feed", None, [vp, ctypes.c_char_p, ctypes.c_size_t]),
    ("cmark_parser_finish", vp, [vp]),
    ("cmark_parser_free", None, [vp]),
    ("cmark_node_free", None, [vp]),
    ("cmark_node_first_child", vp, [vp]),
    ("cmark_node_next", vp, [vp]),
    ("cmark_node_get_type", ctypes.c_int, [vp]),
    ("cmark_node_get_type_string", ctypes.c_char_p, [vp]),
    ("cmark_node_get_literal", ctypes.c_char_p, [vp]),
    ("cmark_node_get_start_line", ctypes.c_int, [vp]),
    ("cmark_node_get_heading_level", ctypes.c_int, [vp]),
    ("cmark_node_get_list_type", ctypes.c_int, [vp]),
    ("cmark_node_get_list_start", ctypes.c_int, [vp]),
    ("cmark_version_string", ctypes.c_char_p, []),
]:
    f = getattr(lib, name)
    f.restype = res
    f.argtypes = args
lib.cmark_gfm_core_extensions_ensure_registered()
OPT_SOURCEPOS = 1 << 1
OPT_FOOTNOTES = 1 << 13
FOOTNOTE_REFERENCE = 0xC00B
FOOTNOTE_DEFINITION = 0x800B
CMARK_ORDERED_LIST = 2


def children(n):
    c = lib.cmark_node_first_child(n)
    while c:
        yield c
        c = lib.cmark_node_next(c)


def typ(n):
    t = lib.cmark_node_get_type(n)
    if t == FOOTNOTE_REFERENCE:
        return "footnote_reference"
    if t == FOOTNOTE_DEFINITION:
        return "footnote_definition"
    return lib.cmark_node_get_type_string(n).decode()


def lit(n):
    s = lib.cmark_node_get_literal(n)
    return s.decode("utf-8", "replace") if s is not None else ""


def inline(n, out):
    for c in children(n):
        t = typ(c)
        if t in ("text", "code", "html_inline"):
            out.append(lit(c))
        elif t in ("softbreak", "linebreak"):
            out.append(" ")
        elif t == "footnote_reference":
            out.append("[^" + lit(c) + "]")
        else:
            inline(c, out)


CONTAINERS = {"block_quote": "quote", "item": "item", "tasklist": "task",
              "footnote_definition": "footnote"}


def block(n, ctx, out):
    for c in children(n):
        t = typ(c)
        line = lib.cmark_node_get_start_line(c)
        if t in ("paragraph", "heading"):
            parts = []
            inline(c, parts)
            b = {"t": t, "line": line, "ctx": ctx, "text": "".join(parts)}
            if t == "heading":
                b["level"] = lib.cmark_node_get_heading_level(c)
            out.append(b)
        elif t in ("code_block", "html_block"):
            out.append({"t": t, "line": line, "ctx": ctx, "text": lit(c)})
        elif t == "thematic_break":
            out.append({"t": t, "line": line, "ctx": ctx})
        elif t == "table":
            rows = []
            for r in children(c):
                cells = []
                for cell in children(r):
                    parts = []
                    inline(cell, parts)
                    cells.append("".join(parts))
                rows.append({"line": lib.cmark_node_get_start_line(r), "cells": cells})
            out.append({"t": "table", "line": line, "ctx": ctx, "rows": rows})
        elif t == "list":
            # A browser shows an ordered item's number (`<ol start>` numbers
            # the items on from the first) before its first paragraph.
            ordered = lib.cmark_node_get_list_type(c) == CMARK_ORDERED_LIST
            number = lib.cmark_node_get_list_start(c)
            for item in children(c):
                sub = []
                block(item, ctx + [CONTAINERS.get(typ(item), typ(item))], sub)
                first = lib.cmark_node_first_child(item)
                if ordered and first and typ(first) in ("paragraph", "heading") and sub:
                    sub[0]["text"] = "%d. %s" % (number, sub[0]["text"])
                number += 1
                out.extend(sub)
        else:
            block(c, ctx + [CONTAINERS.get(t, t)], out)


def view(data):
    p = lib.cmark_parser_new(OPT_SOURCEPOS | OPT_FOOTNOTES)
    for e in ["table", "autolink", "tagfilter", "strikethrough", "tasklist"]:
        lib.cmark_parser_attach_syntax_extension(p, lib.cmark_find_syntax_extension(e.encode()))
    lib.cmark_parser_feed(p, data, len(data))
    doc = lib.cmark_parser_finish(p)
    out = []
    block(doc, [], out)
    lib.cmark_node_free(doc)
    lib.cmark_parser_free(p)
    return out


def main():
    if sys.argv[1:] == ["--version"]:
        print(lib.cmark_version_string().decode())
    elif sys.argv[1:] == ["--serve"]:
        inp, outp = sys.stdin.buffer, sys.stdout.buffer
        while True:
            head = inp.read(4)
            if len(head) < 4:
                return
            data = inp.read(struct.unpack(">I", head)[0])
            body = json.dumps(view(data), ensure_ascii=False).encode()
            outp.write(struct.pack(">I", len(body)) + body)
            outp.flush()
    else:
        for f in sys.argv[1:]:
            with open(f, "rb") as fh:
                print(json.dumps(view(fh.read()), ensure_ascii=False))


main()
