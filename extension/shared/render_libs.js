// The third-party libraries of the transcript renderer (shared/render.js), bundled by build.mjs into
// bundle/render_libs.js as one ES module: extension pages import that file, never a CDN (CSP: script-src 'self').
import MarkdownIt from "markdown-it";
import taskLists from "markdown-it-task-lists";
import texmath from "markdown-it-texmath";
import katex from "katex";
import DOMPurify from "dompurify";
import hljs from "highlight.js/lib/common";

export { MarkdownIt, taskLists, texmath, katex, DOMPurify, hljs };
