// The end of the checker's verification. In a window: posts the result to the page that opened it, to its exact
// origin only, then closes (without an opener the page just says where the result went). target=redirect: goes
// back to the page with the result in the fragment (the link does the same without JavaScript).
(function () {
  'use strict';
  var back = document.getElementById('age-provider-return');
  if (back) {
    window.location.replace(back.href);
    return;
  }
  var holder = document.getElementById('age-provider-result');
  var opener = window.opener;
  if (!holder || !opener || opener.closed) return;
  opener.postMessage(JSON.parse(holder.getAttribute('data-message')), holder.getAttribute('data-origin'));
  window.close();
})();
