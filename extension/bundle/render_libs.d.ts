// Types of bundle/render_libs.js (minified by build.mjs from shared/render_libs.js): tsc reads these instead of
// checking the generated bundle. Exactly the names shared/render.js imports; the packages' own declarations
// where they ship them, the two markdown-it plugins typed here.
import type { MarkdownIt as MarkdownItParser } from "markdown-it";
import type { KatexOptions } from "katex";
import type { HLJSApi } from "highlight.js";

export { default as MarkdownIt } from "markdown-it";
export { default as katex } from "katex";
export { default as DOMPurify } from "dompurify";

/** highlight.js's common languages (its "lib/common" entry has no declarations of its own). */
export declare const hljs: HLJSApi;

/** markdown-it-task-lists: `- [ ]` items become checkboxes. */
export declare function taskLists(md: MarkdownItParser, options?: { enabled?: boolean; label?: boolean; labelAfter?: boolean }): void;

/** One of texmath's delimiter rules: `rex` matches, `tmpl` renders, `pre`/`post` check the text around a match. */
export interface TexmathRule {
  name: string;
  rex: RegExp;
  tmpl: string;
  tag: string;
  displayMode?: boolean;
  outerSpace?: boolean;
  pre?: (src: string, outerSpace: boolean, begin: number) => boolean;
  post?: (src: string, outerSpace: boolean, end: number) => boolean;
}

/** markdown-it-texmath: TeX math between delimiters, rendered by `engine` (KaTeX). */
export interface TexmathOptions {
  engine: { renderToString(tex: string, options?: KatexOptions): string };
  delimiters?: string | string[];
  katexOptions?: KatexOptions;
}
export declare const texmath: ((md: MarkdownItParser, options?: TexmathOptions) => void) & {
  rules: Record<string, { inline: TexmathRule[]; block: TexmathRule[] }>;
};
