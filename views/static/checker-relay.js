// The checker's verification window: posts the result to the page that opened it, to its exact origin only, then
// closes. Without an opener (it was closed, or the browser severed it) the page just says where the result went.
(function () {
  'use strict';
  var holder = document.getElementById('age-provider-result');
  var opener = window.opener;
  if (!holder || !opener || opener.closed) return;
  opener.postMessage(JSON.parse(holder.getAttribute('data-message')), holder.getAttribute('data-origin'));
  window.close();
})();
