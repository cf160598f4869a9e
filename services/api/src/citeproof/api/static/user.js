// Who is signed in, reflected in the top bar.

import { auth } from "./api.js";

let current = null;

export function currentUser() {
  return current;
}

export function signedIn(me) {
  current = me;
  const chip = document.getElementById("user-chip");
  const name = me?.name || me?.user_id || "";
  chip.textContent = name;
  chip.dataset.initial = name.trim().charAt(0).toUpperCase() || "?";
  document.getElementById("topnav").hidden = false;
}

export function signedOut() {
  auth.token = null;
  current = null;
  document.getElementById("topnav").hidden = true;
}
