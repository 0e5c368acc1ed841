// Progressive enhancement of the "Verify my age" button (the flow opens in a new window).
// Without JavaScript, or when the browser blocks the popup, the link simply opens in this window.
(function () {
  'use strict';
  var WINDOW_NAME = 'age-verification';

  // Back from the provider inside the popup: hand the result to the shop's window and close.
  if (document.body.hasAttribute('data-return-to-opener') && window.opener) {
    try {
      if (window.opener.location.origin === window.location.origin) {
        window.opener.location.assign('/');
        window.close();
        return;
      }
    } catch (error) {
      // The opener belongs to another origin: stay here, the result is shown in this window.
    }
  }

  var button = document.getElementById('verify-button');
  if (!button) return;
  var hint = document.getElementById('verify-hint');
  if (hint) hint.hidden = false;
  button.addEventListener('click', function (event) {
    var width = 520;
    var height = 720;
    var left = Math.max(0, window.screenX + (window.outerWidth - width) / 2);
    var top = Math.max(0, window.screenY + (window.outerHeight - height) / 2);
    var popup = window.open(
      button.href,
      WINDOW_NAME,
      'popup,width=' + width + ',height=' + height + ',left=' + left + ',top=' + top,
    );
    if (popup) {
      event.preventDefault();
      popup.focus();
    }
  });
})();
