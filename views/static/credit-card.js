// Card check with Stripe.js: Stripe's own iframe collects the card (its data never reaches our server), confirms the
// SetupIntent (3-D Secure included), then the form tells our server which SetupIntent to read back from Stripe.
(function () {
  'use strict';
  var form = document.getElementById('card-form');
  if (!form) return;
  var status = document.getElementById('card-status');
  var button = document.getElementById('card-submit');
  if (typeof window.Stripe !== 'function') {
    status.textContent = form.dataset.unavailable;
    button.disabled = true;
    return;
  }
  var stripe = window.Stripe(form.dataset.publishableKey, { locale: form.dataset.locale });
  var card = stripe.elements({ locale: form.dataset.locale }).create('card', { hidePostalCode: true });
  card.mount('#card-element');

  form.addEventListener('submit', function (event) {
    event.preventDefault();
    button.disabled = true;
    status.textContent = form.dataset.working;
    stripe.confirmCardSetup(form.dataset.clientSecret, { payment_method: { card: card } }).then(function (result) {
      if (result.error) {
        // Stripe's message, in the page's language: declined, wrong number, authentication failed...
        status.textContent = result.error.message || '';
        button.disabled = false;
        return;
      }
      form.elements.namedItem('setup_intent').value = result.setupIntent.id;
      form.submit();
    });
  });
})();
