// Firefox's WebExtension namespace. Firefox also provides `chrome` with the same promise-returning API, which
// is what the code calls; shared/api.js prefers `browser` where it exists, so it shares chrome's types.
declare var browser: typeof chrome | undefined;
