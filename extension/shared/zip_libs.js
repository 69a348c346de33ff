// fflate's synchronous zip writer, bundled by build.mjs into bundle/zip_libs.js (an ES module the library imports).
export { zipSync, strToU8 } from "fflate";
