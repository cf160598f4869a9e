// HTTP client for the citeproof API: bearer token, JSON, and the one error shape
// {"status", "code", "detail"} turned into an ApiError the views can show as is.

const TOKEN_KEY = "citeproof.token";

export class ApiError extends Error {
  constructor(status, code, detail) {
    super(detail || `Request failed (${status})`);
    this.status = status;
    this.code = code || "http_error";
    this.detail = this.message;
  }
}

export const auth = {
  get token() {
    return localStorage.getItem(TOKEN_KEY);
  },
  set token(value) {
    if (value) localStorage.setItem(TOKEN_KEY, value);
    else localStorage.removeItem(TOKEN_KEY);
  },
};

// Called when any request comes back 401, so the app can send the user to sign in.
let onUnauthorized = () => {};
export function setUnauthorizedHandler(handler) {
  onUnauthorized = handler;
}

async function request(method, path, { json, body, token = auth.token, raw = false } = {}) {
  const headers = { Accept: "application/json" };
  if (token) headers.Authorization = `Bearer ${token}`;
  if (json !== undefined) {
    headers["Content-Type"] = "application/json";
    body = JSON.stringify(json);
  }
  let response;
  try {
    response = await fetch(path, { method, headers, body });
  } catch (err) {
    throw new ApiError(0, "network_error", "Cannot reach the citeproof server. Is it running?");
  }
  if (!response.ok) {
    const error = await errorFrom(response);
    if (response.status === 401) onUnauthorized(error);
    throw error;
  }
  if (raw) return response;
  if (response.status === 204) return null;
  const type = response.headers.get("Content-Type") || "";
  return type.includes("json") ? response.json() : response.text();
}

async function errorFrom(response) {
  let payload = null;
  try {
    payload = await response.json();
  } catch {
    /* not JSON: fall back to the status line */
  }
  const detail = payload?.detail || response.statusText || `HTTP ${response.status}`;
  const retry = response.headers.get("Retry-After");
  const suffix = retry && !/retry/i.test(detail) ? ` Try again in ${retry} s.` : "";
  return new ApiError(response.status, payload?.code, detail + suffix);
}

const enc = encodeURIComponent;

export const api = {
  me: (token) => request("GET", "/v1/me", { token }),
  preferences: () => request("GET", "/v1/me/preferences"),
  setPreferences: (changes) => request("PATCH", "/v1/me/preferences", { json: changes }),

  listSessions: () => request("GET", "/v1/sessions"),
  createSession: (name) => request("POST", "/v1/sessions", { json: { name } }),
  getSession: (id) => request("GET", `/v1/sessions/${enc(id)}`),
  deleteSession: (id) => request("DELETE", `/v1/sessions/${enc(id)}`),
  resetSources: (id) => request("POST", `/v1/sessions/${enc(id)}/reset-sources`),
  // Maps a thesis reference to a source document; documentId null means "no source".
  setReferenceSource: (sessionId, thesisId, label, documentId) =>
    request("PUT", `/v1/sessions/${enc(sessionId)}/reference-overrides`, {
      json: { thesis_document_id: thesisId, label, document_id: documentId },
    }),

  upload(sessionId, kind, files) {
    const form = new FormData();
    form.append("kind", kind);
    for (const file of files) form.append("files", file, file.name);
    return request("POST", `/v1/sessions/${enc(sessionId)}/documents`, { body: form });
  },
  getJob: (id) => request("GET", `/v1/jobs/${enc(id)}`),
  deleteDocument: (id) => request("DELETE", `/v1/documents/${enc(id)}`),

  startRun: (sessionId, thesisId) =>
    request("POST", `/v1/sessions/${enc(sessionId)}/runs`, {
      json: { thesis_document_id: thesisId },
    }),
  getRun: (id) => request("GET", `/v1/runs/${enc(id)}`),
  cancelRun: (id) => request("POST", `/v1/runs/${enc(id)}/cancel`),
  report: (id) => request("GET", `/v1/runs/${enc(id)}/report?format=json`),
  reportFile: (id, format) =>
    request("GET", `/v1/runs/${enc(id)}/report?format=${enc(format)}`, { raw: true }),
  // EventSource cannot send headers, so this one endpoint takes the token as a query parameter.
  eventsUrl: (id) => `/v1/runs/${enc(id)}/events?token=${enc(auth.token || "")}`,
};
