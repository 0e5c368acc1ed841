// eu_av page. 1. Where the browser offers the W3C Digital Credentials API, a button asks the wallet through the
// browser (OpenID4VP, unsigned request) and posts its vp_token to our dc-api step. 2. Otherwise, or meanwhile, it
// asks our status step every two seconds whether a wallet's answer counts (or its answers are refused for now), then
// submits the "continue" form (which is also the way on without JavaScript). Polling stops after ten minutes.
(function () {
  'use strict';
  var browserForm = document.getElementById('eu-av-dc-api');
  if (browserForm && typeof window.DigitalCredential !== 'undefined' && navigator.credentials) {
    browserForm.hidden = false;
    browserForm.addEventListener('submit', function (event) {
      event.preventDefault();
      var request = JSON.parse(browserForm.getAttribute('data-request'));
      navigator.credentials.get({ mediation: 'required', digital: { requests: [{ protocol: 'openid4vp-v1-unsigned', data: request }] } })
        .then(function (credential) {
          if (!credential || !credential.data) return;
          var data = typeof credential.data === 'string' ? JSON.parse(credential.data) : credential.data;
          browserForm.elements.namedItem('vp_token').value = JSON.stringify(data.vp_token);
          HTMLFormElement.prototype.submit.call(browserForm);
        })
        .catch(function () { browserForm.hidden = true; });
    });
  }

  var status = document.getElementById('eu-av-status');
  var form = document.getElementById('eu-av-continue');
  if (!status || !form || !window.fetch) return;
  var url = status.getAttribute('data-status-url');
  var tries = 0;
  function poll() {
    if (tries++ > 300) return;
    fetch(url, { credentials: 'same-origin', headers: { Accept: 'application/json' } })
      .then(function (response) { return response.ok ? response.json() : { answered: false }; })
      .then(function (body) {
        // Once the wallet's answers are refused for a while, "continue" shows why; the page that says so keeps waiting.
        if (body && (body.answered || (body.limited && !status.hasAttribute('data-limited')))) form.submit();
        else window.setTimeout(poll, 2000);
      })
      .catch(function () { window.setTimeout(poll, 5000); });
  }
  window.setTimeout(poll, 2000);
})();
