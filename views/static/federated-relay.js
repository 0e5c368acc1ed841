// Some providers (AgeKey) answer in the URL fragment, which browsers never send to a server. This page copies
// the answer's fields into its form and posts them to us; then it clears the fragment from the address bar.
(function () {
  'use strict';
  var form = document.getElementById('federated-relay');
  var fields = new URLSearchParams(window.location.hash.slice(1));
  if (!form || !fields.has('state')) return;
  ['state', 'id_token', 'code', 'iss', 'error', 'error_description'].forEach(function (name) {
    if (!fields.has(name)) return;
    var input = document.createElement('input');
    input.type = 'hidden';
    input.name = name;
    input.value = fields.get(name);
    form.appendChild(input);
  });
  window.history.replaceState(null, '', window.location.pathname);
  form.submit();
})();
