#!/usr/bin/env python3
"""Resizes every top-level window on the X display in $DISPLAY (for the windowed resize test).

x11_resize.py W H   - talks to libX11 through ctypes; no window manager or extra module needed.
"""
import ctypes
import ctypes.util
import sys


def main():
    width, height = int(sys.argv[1]), int(sys.argv[2])
    x11 = ctypes.cdll.LoadLibrary(ctypes.util.find_library("X11") or "libX11.so.6")
    x11.XOpenDisplay.restype = ctypes.c_void_p
    x11.XOpenDisplay.argtypes = [ctypes.c_char_p]
    x11.XDefaultRootWindow.restype = ctypes.c_ulong
    x11.XDefaultRootWindow.argtypes = [ctypes.c_void_p]
    x11.XQueryTree.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.POINTER(ctypes.c_ulong), ctypes.POINTER(ctypes.c_ulong),
                               ctypes.POINTER(ctypes.POINTER(ctypes.c_ulong)), ctypes.POINTER(ctypes.c_uint)]
    x11.XResizeWindow.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_uint, ctypes.c_uint]
    x11.XFlush.argtypes = [ctypes.c_void_p]
    x11.XCloseDisplay.argtypes = [ctypes.c_void_p]
    display = x11.XOpenDisplay(None)
    if not display:
        raise SystemExit("cannot open the X display")
    root_return, parent = ctypes.c_ulong(), ctypes.c_ulong()
    children = ctypes.POINTER(ctypes.c_ulong)()
    count = ctypes.c_uint()
    x11.XQueryTree(display, x11.XDefaultRootWindow(display), ctypes.byref(root_return), ctypes.byref(parent),
                   ctypes.byref(children), ctypes.byref(count))
    for i in range(count.value):
        x11.XResizeWindow(display, children[i], width, height)
    x11.XFlush(display)
    x11.XCloseDisplay(display)
    print(f"resized {count.value} window(s) to {width}x{height}")


if __name__ == "__main__":
    main()
