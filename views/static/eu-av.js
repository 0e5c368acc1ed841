// eu_av page: asks our status step every two seconds whether the wallet has answered, then submits the
// "continue" form (which is also the way on without JavaScript). It stops after ten minutes, as the request does.
(function () {
  'use strict';
  var status = document.getElementById('eu-av-status');
  var form = document.getElementById('eu-av-continue');
  if (!status || !form || !window.fetch) return;
  var url = status.getAttribute('data-status-url');
  var tries = 0;
  function poll() {
    if (tries++ > 300) return;
    fetch(url, { credentials: 'same-origin', headers: { Accept: 'application/json' } })
      .then(function (response) { return response.ok ? response.json() : { answered: false }; })
      .then(function (body) { if (body && body.answered) form.submit(); else window.setTimeout(poll, 2000); })
      .catch(function () { window.setTimeout(poll, 5000); });
  }
  window.setTimeout(poll, 2000);
})();
