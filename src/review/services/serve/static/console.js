// Loaded before textual.js. The browser opens nothing on the console's behalf: a URL in a submission's
// note or log is drawn as text, and xterm's link detection would otherwise open it on a click.
"use strict";
window.open = function () {
  return null;
};
document.addEventListener("DOMContentLoaded", function () {
  // Scripts in the page itself are refused by its Content-Security-Policy: wired here instead.
  document.getElementById("restart").addEventListener("click", function () {
    window.location.reload();
  });
});
