// Runs started from this browser, remembered per session (the API has no "list runs" route, and
// a user returning to a session wants the link to the last report).

const KEY_PREFIX = "citeproof.runs.";
const MAX_REMEMBERED = 10;

export function rememberedRuns(sessionId) {
  try {
    return JSON.parse(localStorage.getItem(KEY_PREFIX + sessionId) || "[]");
  } catch {
    return [];
  }
}

export function rememberRun(sessionId, run) {
  const runs = [run, ...rememberedRuns(sessionId).filter((r) => r.id !== run.id)];
  localStorage.setItem(KEY_PREFIX + sessionId, JSON.stringify(runs.slice(0, MAX_REMEMBERED)));
}

export function sessionOfRun(runId) {
  for (let i = 0; i < localStorage.length; i++) {
    const key = localStorage.key(i);
    if (!key.startsWith(KEY_PREFIX)) continue;
    if (rememberedRuns(key.slice(KEY_PREFIX.length)).some((r) => r.id === runId)) {
      return key.slice(KEY_PREFIX.length);
    }
  }
  return null;
}
