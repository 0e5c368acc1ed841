// Shows the age gate only where the website's regions require verification: asks the age provider's
// public requirement endpoint (CORS) about this visitor. If it cannot answer, the gate stays (the safe side).
(function () {
  'use strict';
  var gate = document.getElementById('gate');
  if (!gate || !window.fetch) return;

  // ZZ is ISO's "unknown": say that the location is unknown instead of printing the code.
  var UNKNOWN_COUNTRY = 'ZZ';
  var names =
    window.Intl && Intl.DisplayNames
      ? new Intl.DisplayNames([document.documentElement.lang], { type: 'region', fallback: 'code' })
      : null;
  var fill = function (template, answer) {
    var where = answer.country_subdivision || (names ? names.of(answer.country) : answer.country);
    return template.replace('{country}', where).replace('{age}', String(answer.age_threshold));
  };

  fetch(gate.getAttribute('data-requirement-url'), { credentials: 'omit', headers: { accept: 'application/json' } })
    .then(function (response) {
      if (!response.ok) throw new Error('requirement endpoint answered ' + response.status);
      return response.json();
    })
    .then(function (answer) {
      if (typeof answer.required !== 'boolean') return;
      if (answer.required) {
        var status = document.getElementById('requirement');
        var unknown = answer.country === UNKNOWN_COUNTRY;
        status.textContent = fill(
          gate.getAttribute(unknown ? 'data-text-required-unknown' : 'data-text-required'),
          answer,
        );
        status.hidden = false;
        return;
      }
      var shop = document.getElementById('open-shop');
      document.getElementById('not-required').textContent = fill(shop.getAttribute('data-text-not-required'), answer);
      gate.hidden = true;
      shop.hidden = false;
    })
    .catch(function () {
      // Keep the gate: without an answer we must assume verification is required.
    });
})();
