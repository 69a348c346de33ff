// Types of bundle/zip_libs.js (minified by build.mjs from shared/zip_libs.js): tsc reads these instead of
// checking the generated bundle. Exactly the names library/selection.js imports, from fflate's own declarations.
export { zipSync, strToU8 } from "fflate";
