// Counts in words ("1 match", "3 matches"): the browser's i18n API has no plural rules, so each counted noun
// has a singular and a plural message; languages without the distinction give both the same text.
import { t } from "./api.js";

/** "1 message" / "N messages" (and so on for each noun below). */
export function countText(noun, count) {
  const n = Number(count) || 0;
  const shown = String(n);
  const one = n === 1;
  switch (noun) {
    case "message": return one ? t("messageCountOne", [shown]) : t("messageCount", [shown]);
    case "match": return one ? t("resultCountOne", [shown]) : t("resultCount", [shown]);
    case "conversation": return one ? t("conversationCountOne", [shown]) : t("conversationCount", [shown]);
    default: throw new Error(`no plural messages for ${noun}`);
  }
}
