// citeproof web UI entry point: hash router, sign-in state and the top bar.
// Each view is `render(root, params) -> cleanup?`; the cleanup stops its polling or event stream
// when the user navigates away.

import { api, auth, setUnauthorizedHandler } from "./api.js";
import { h, mount, toast } from "./dom.js";
import { renderRun } from "./view-run.js";
import { renderSession } from "./view-session.js";
import { renderSessions } from "./view-sessions.js";
import { renderSignIn } from "./view-signin.js";
import { currentUser, signedIn, signedOut } from "./user.js";

const ROUTES = [
  [/^#\/signin$/, renderSignIn, { public: true }],
  [/^#\/sessions\/([^/]+)$/, renderSession],
  [/^#\/runs\/([^/]+)$/, renderRun],
  [/^(?:#\/?)?$/, renderSessions],
];

const root = document.getElementById("app");
let cleanup = null;

function signOut() {
  signedOut();
  location.hash = "#/signin";
}

async function route() {
  if (cleanup) {
    cleanup();
    cleanup = null;
  }
  const hash = location.hash || "#/";
  const match = ROUTES.find(([pattern]) => pattern.test(hash));
  if (!match) {
    location.hash = "#/";
    return;
  }
  const [pattern, view, options = {}] = match;
  if (!options.public && !(await ensureUser())) return;
  const params = hash.match(pattern).slice(1).map(decodeURIComponent);
  window.scrollTo(0, 0);
  try {
    cleanup = (await view(root, ...params)) || null;
  } catch (err) {
    mount(
      root,
      h(
        "div",
        { class: "card" },
        h("div", { class: "alert alert-error" }, err.detail || String(err))
      )
    );
  }
}

async function ensureUser() {
  if (currentUser()) return true;
  if (!auth.token) {
    location.hash = "#/signin";
    return false;
  }
  try {
    signedIn(await api.me());
    return true;
  } catch (err) {
    if (err.status !== 401) toast(err.detail, { error: true });
    location.hash = "#/signin";
    return false;
  }
}

setUnauthorizedHandler(() => {
  if (location.hash === "#/signin") return;
  signedOut();
  toast("Your token is no longer valid. Please sign in again.", { error: true });
  location.hash = "#/signin";
});

document.getElementById("sign-out").addEventListener("click", signOut);
window.addEventListener("hashchange", route);
route();
