// The script integration's own part: when the age provider's script reports a verification, the token goes to this
// site's backend, which verifies it and only then releases the content. Nothing is unlocked on the page's word.
document.addEventListener('age-provider:success', function (event) {
  fetch('/script/unlock', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token: event.detail.token }),
  })
    .then(function (response) {
      return response.ok ? response.json() : Promise.reject(new Error('refused'));
    })
    .then(function (answer) {
      document.getElementById('unlocked-content').textContent = answer.content;
      document.getElementById('unlocked').hidden = false;
      document.getElementById('locked').hidden = true;
    })
    .catch(function () {
      /* the page stays locked */
    });
});
