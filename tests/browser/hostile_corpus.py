"""A corpus of hostile transcript text for the popup and the conversation view.

Every payload is a template whose `{js}` becomes `window.__pwned_<n>=1` (n = its index), so a payload that ever
runs leaves its own mark. Payloads that cannot run script by themselves (CSS, <meta refresh>, <base href>, links)
are caught by the live-element, on*-attribute and link counts instead.
"""

from __future__ import annotations

TEMPLATES = [
    # script elements
    "<script>{js}</script>",
    '<script src="data:text/javascript,{js}"></script>',
    "<ScRiPt>{js}</sCrIpT>",
    "<scr\u200bipt>{js}</scr\u200bipt> (zero-width inside the tag name)",
    # elements with event handlers
    '<img src=x onerror="{js}">',
    '<img srcset="x" onerror={js}>',
    '<svg onload="{js}">',
    "<svg><script>{js}</script></svg>",
    '<svg><animate onbegin="{js}" attributeName=x dur=1s>',
    '<svg><a xlink:href="javascript:{js}"><text x=20 y=20>svg link</text></a></svg>',
    "<svg><use href=\"data:image/svg+xml,<svg id='x' xmlns='http://www.w3.org/2000/svg'><image href='1' onerror='{js}'/></svg>#x\"/></svg>",
    '<iframe src="javascript:{js}"></iframe>',
    '<iframe srcdoc="<script>parent.{js}</script>"></iframe>',
    '<object data="javascript:{js}"></object>',
    '<embed src="data:text/html,<script>parent.{js}</script>">',
    '<video><source onerror="{js}"></video>',
    '<audio src=x onerror="{js}">',
    '<body onload="{js}">',
    '<details open ontoggle="{js}">',
    '<marquee onstart="{js}">',
    '<math><maction actiontype=statusline xlink:href="javascript:{js}">math</maction></math>',
    # forms
    '<input autofocus onfocus="{js}">',
    '<form><button formaction="javascript:{js}">go</button></form>',
    '<textarea></textarea><input type=image src=x onerror="{js}">',
    # links in HTML, obfuscated links
    '<a href="javascript:{js}">html link</a>',
    '<a href="&#106;avascript&#58;{js}">entity link</a>',
    '<a href="jav&#x09;ascript:{js}">tab link</a>',
    '<a href="data:text/html,<script>{js}</script>">data link</a>',
    '<a href="vbscript:msgbox(1)\'{js}">vbscript link</a>',
    # links in Markdown
    "[markdown link](javascript:{js})",
    "[markdown entity](&#106;avascript:{js})",
    "![markdown image](javascript:{js})",
    "[markdown data](data:text/html,<script>{js}</script>)",
    "<javascript:{js}> (markdown autolink)",
    # CSS payloads
    '<style>@import url("javascript:{js}");</style>',
    '<style>body{{background:url("javascript:{js}")}}</style>',
    '<div style="background-image:url(javascript:{js});width:expression({js})">css attribute</div>',
    '<link rel=stylesheet href="javascript:{js}">',
    '<meta http-equiv="refresh" content="0;url=javascript:{js}">',
    '<base href="javascript:{js}//">',
    # template / slot tricks
    '<template><img src=x onerror="{js}"></template>',
    '<div><template shadowrootmode=open><img src=x onerror="{js}"></template></div>',
    '<slot name=x><img src=x onerror="{js}"></slot>',
    # mutation XSS
    '<noscript><p title="</noscript><img src=x onerror={js}>">',
    '<math><mtext><table><mglyph><style><img src=x onerror="{js}">',
    '<svg></p><style><a id="</style><img src=1 onerror={js}>">',
    '<xmp><p title="</xmp><img src=x onerror={js}>">',
    '<!--<img src="--><img src=x onerror={js}//">',
    '</title><img src=x onerror="{js}">',
    # bidi and zero-width characters, the app's own snippet markers, replacement patterns, template syntax
    '\u202e<img src=x onerror="{js}">\u202c reversed',
    '\u2066<a href="java\u200dscript:{js}">zero-width joiner link</a>\u2069',
    '\u00ab<img src=x onerror="{js}">\u00bb (snippet markers)',
    '$\' $& $` <img src=x onerror="{js}"> (replacement patterns)',
    "{{{{constructor.constructor('{js}')()}}}} ${{{js}}}",
]


def marker(index: int) -> str:
    return f"__pwned_{index}"


def payloads() -> list[str]:
    return [template.format(js=f"window.{marker(i)}=1") for i, template in enumerate(TEMPLATES)]


def chunks(items: list[str], count: int) -> list[list[str]]:
    """Split items into `count` groups, round-robin, so every group mixes kinds of payload."""
    return [items[i::count] for i in range(count)]


# Resolves when every image and frame in the page (and open shadow roots) has loaded or failed and the
# tasks those events queued have run: a (wrongly) live payload's onerror/onload handler would have run by then.
SETTLED = """async () => {
  const all = [];
  const walk = (root) => { for (const e of root.querySelectorAll('*')) { all.push(e); if (e.shadowRoot) walk(e.shadowRoot); } };
  walk(document);
  const done = (e) => new Promise((resolve) => {
    e.addEventListener('load', resolve, { once: true });
    e.addEventListener('error', resolve, { once: true });
  });
  if (document.readyState !== 'complete') await new Promise((resolve) => addEventListener('load', resolve, { once: true }));
  await Promise.all(all.filter((e) => e.localName === 'img' && !e.complete).map(done));
  for (let i = 0; i < 3; i += 1) {
    await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
  }
  return true;
}"""
