// eu_av page. 1. Where the browser offers the W3C Digital Credentials API, a button asks the wallet through the
// browser, offering both ISO/IEC 18013-7 Annex C (org-iso-mdoc, first) and OpenID4VP (unsigned request): the browser shows
// what the visitor's wallets answer, and the answer (a vp_token, or an encrypted response) goes to our dc-api step. 2. Otherwise, or meanwhile, it
// asks our status step every two seconds whether a wallet's answer counts (or its answers are refused for now), then
// submits the "continue" form (which is also the way on without JavaScript). Polling stops after ten minutes.
(function () {
  'use strict';
  var browserForm = document.getElementById('eu-av-dc-api');
  if (browserForm && typeof window.DigitalCredential !== 'undefined' && navigator.credentials) {
    browserForm.hidden = false;
    browserForm.addEventListener('submit', function (event) {
      event.preventDefault();
      document.getElementById('eu-av-dc-api-failed').hidden = true;
      var requests = JSON.parse(browserForm.getAttribute('data-requests'));
      navigator.credentials
        .get({ mediation: 'required', digital: { requests: requests } })
        .then(function (credential) {
          if (!credential || !credential.data) return;
          var data = typeof credential.data === 'string' ? JSON.parse(credential.data) : credential.data;
          // OpenID4VP answers a vp_token; ISO/IEC 18013-7 Annex C an encrypted response.
          var annexC = credential.protocol === 'org-iso-mdoc';
          browserForm.elements.namedItem('protocol').value = annexC ? 'org-iso-mdoc' : 'openid4vp-v1-unsigned';
          browserForm.elements.namedItem('data').value = annexC ? data.response : JSON.stringify(data.vp_token);
          HTMLFormElement.prototype.submit.call(browserForm);
        })
        // Refused, cancelled, no wallet, an unsupported request: the visitor reads why, and may try again or use the QR code or a link.
        .catch(function () {
          document.getElementById('eu-av-dc-api-failed').hidden = false;
        });
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
      .then(function (response) {
        return response.ok ? response.json() : { answered: false };
      })
      .then(function (body) {
        // Once the wallet's answers are refused for a while, "continue" shows why; the page that says so keeps waiting.
        if (body && (body.answered || (body.limited && !status.hasAttribute('data-limited')))) form.submit();
        else window.setTimeout(poll, 2000);
      })
      .catch(function () {
        window.setTimeout(poll, 5000);
      });
  }
  window.setTimeout(poll, 2000);
})();
