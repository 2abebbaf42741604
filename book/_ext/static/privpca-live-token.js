/* Live builds only (book/_ext/live_code.py adds this file to every page of a build made by
 * scripts/live_book.sh).  The script prints an address ending in #privpca-live-token=...: the
 * local Jupyter server's access token, in a URL fragment (never sent to any server).  Whatever
 * page that address opens, this keeps the token in localStorage for this site (so that Live
 * Code on any chapter finds it) and removes it from the address bar, so that it is not
 * bookmarked or copied along with the link.
 */
(function () {
  "use strict";
  var match = /(?:^#|&)privpca-live-token=([^&]+)/.exec(window.location.hash);
  if (!match) {
    return;
  }
  var token = decodeURIComponent(match[1]);
  try {
    window.localStorage.setItem("privpca-live-token", token);
  } catch (err) {
    window.privpcaLiveToken = token; // storage refused: this page only
  }
  var rest = window.location.hash.replace(match[0], "").replace(/^#&?/, "");
  history.replaceState(null, "", window.location.pathname + window.location.search + (rest ? "#" + rest : ""));
})();
