// Passkeys for reuse: runs the WebAuthn ceremonies for the passkey sections of the interaction pages
// (data-passkey="register" or "sign-in"). The server sends the options as JSON (binary values base64url) and answers
// each post with { location } to go to, or { message } when it refused. Without WebAuthn the sections stay hidden.
'use strict';

(function () {
  if (!window.PublicKeyCredential || !navigator.credentials) return;

  function toBytes(base64url) {
    const base64 = base64url.replace(/-/g, '+').replace(/_/g, '/');
    const binary = atob(base64 + '='.repeat((4 - (base64.length % 4)) % 4));
    return Uint8Array.from(binary, (character) => character.charCodeAt(0));
  }

  function toBase64url(buffer) {
    let binary = '';
    for (const byte of new Uint8Array(buffer)) binary += String.fromCharCode(byte);
    return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  }

  const descriptors = (list) => (list || []).map((item) => Object.assign({}, item, { id: toBytes(item.id) }));

  function creationOptions(json) {
    return Object.assign({}, json, {
      challenge: toBytes(json.challenge),
      user: Object.assign({}, json.user, { id: toBytes(json.user.id) }),
      excludeCredentials: descriptors(json.excludeCredentials),
    });
  }

  function requestOptions(json) {
    return Object.assign({}, json, {
      challenge: toBytes(json.challenge),
      allowCredentials: descriptors(json.allowCredentials),
    });
  }

  // The credential as the server reads it: `response` holds clientDataJSON and the ceremony's own `fields`.
  function credentialJson(credential, fields) {
    return {
      id: credential.id,
      rawId: toBase64url(credential.rawId),
      type: credential.type,
      clientExtensionResults: {},
      authenticatorAttachment: credential.authenticatorAttachment || null,
      response: Object.assign({ clientDataJSON: toBase64url(credential.response.clientDataJSON) }, fields),
    };
  }

  function registrationJson(credential) {
    const response = credential.response;
    return credentialJson(credential, {
      attestationObject: toBase64url(response.attestationObject),
      transports: response.getTransports ? response.getTransports() : [],
    });
  }

  function assertionJson(credential) {
    const response = credential.response;
    return credentialJson(credential, {
      authenticatorData: toBase64url(response.authenticatorData),
      signature: toBase64url(response.signature),
      userHandle: response.userHandle ? toBase64url(response.userHandle) : '',
    });
  }

  // A form post of our own origin: the CSRF token travels as the forms' does; fetch sends Origin, which the server checks.
  async function post(url, csrf, credential) {
    const body = new URLSearchParams({ _csrf: csrf });
    if (credential) body.set('response', JSON.stringify(credential));
    const answer = await fetch(url, {
      method: 'POST',
      body,
      credentials: 'same-origin',
      headers: { Accept: 'application/json' },
    });
    const json = (answer.headers.get('content-type') || '').includes('application/json') ? await answer.json() : {};
    return { ok: answer.ok, json };
  }

  function show(section, which, text) {
    for (const message of section.querySelectorAll('[data-passkey-message]'))
      message.hidden = message.dataset.passkeyMessage !== which;
    const holder = section.querySelector('[data-passkey-message="failed"] [data-passkey-text]');
    if (which === 'failed' && holder) holder.textContent = text || holder.dataset.fallback;
  }

  async function run(section) {
    const mode = section.dataset.passkey;
    const csrf = section.dataset.csrf;
    const options = await post(section.dataset.options, csrf);
    if (options.json.location) return window.location.assign(options.json.location);
    if (!options.ok) return show(section, 'failed', options.json.message);
    let credential;
    try {
      credential =
        mode === 'register'
          ? await navigator.credentials.create({ publicKey: creationOptions(options.json) })
          : await navigator.credentials.get({ publicKey: requestOptions(options.json) });
    } catch (error) {
      // NotAllowedError: no passkey of ours on this device, or the visitor closed the browser's dialog.
      return show(section, error && error.name === 'NotAllowedError' ? 'cancelled' : 'failed');
    }
    if (!credential) return show(section, 'cancelled');
    const answer = await post(
      section.dataset.submit,
      csrf,
      mode === 'register' ? registrationJson(credential) : assertionJson(credential),
    );
    if (answer.json.location) return window.location.assign(answer.json.location);
    show(section, 'failed', answer.json.message);
  }

  for (const section of document.querySelectorAll('[data-passkey]')) {
    const button = section.querySelector('button');
    section.hidden = false;
    button.addEventListener('click', async () => {
      button.disabled = true;
      try {
        await run(section);
      } catch (error) {
        show(section, 'failed');
      } finally {
        button.disabled = false;
      }
    });
  }
})();
