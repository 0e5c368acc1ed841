// Age Provider checker script (docs/checker.md). No dependencies; runs under a strict host CSP: it creates no
// inline script or style markup (styles are set through the CSSOM), loads nothing but our own scripts, and
// receives its result only by postMessage from our origin or from its own redirect fragment.
(function () {
  'use strict';
  var VERSION = '__VERSION__';
  var MESSAGES = __MESSAGES__;
  var LOGO = __LOGO__;
  var script = document.currentScript;
  if (!script || window.ageProvider) return;

  var source = new URL(script.src);
  var issuer = source.origin;
  var option = function (name) {
    var fromQuery = source.searchParams.get(name);
    return fromQuery !== null ? fromQuery : script.getAttribute('data-' + name);
  };
  var key = option('key') || '';
  var nostart = option('nostart') !== null && option('nostart') !== 'false';
  var language = option('language');
  var challenges = option('challenges');
  var target = option('target') || 'popup';
  var storageKey = 'age-provider:' + key;
  var FRAGMENT = /(?:^#|&)age_provider_(token|error)=([^&]*)/;

  var handlers = {};
  var popup = null;
  var popupWatch = 0;
  /** how long a closed verification window's result may still be on its way */
  var CLOSED_GRACE_MS = 1000;
  var overlay = null;
  var blurred = [];

  function emit(name, detail) {
    (handlers[name] || []).slice().forEach(function (handler) {
      try {
        handler(detail);
      } catch (error) {
        setTimeout(function () {
          throw error;
        });
      }
    });
    document.dispatchEvent(new CustomEvent('age-provider:' + name, { detail: detail }));
  }
  function fail(error, message) {
    emit('error', { error: error, message: message });
  }

  // --- the token and the verification object ---------------------------------------------------------------
  function bytesOf(part) {
    return Uint8Array.from(atob(part.replace(/-/g, '+').replace(/_/g, '/')), function (c) {
      return c.charCodeAt(0);
    });
  }
  function jsonOf(part) {
    return JSON.parse(new TextDecoder().decode(bytesOf(part)));
  }
  function claimsOf(token) {
    try {
      return jsonOf(token.split('.')[1]);
    } catch (error) {
      return null;
    }
  }
  // A token in the page address's fragment could have been put there by anyone who sent the visitor a link: it counts
  // only once its signature checks against our published keys (WebCrypto; the window's postMessage is trusted by its
  // origin instead). The import and verify parameters of each algorithm the service signs with.
  var ALGORITHMS = {
    RS256: [{ name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, { name: 'RSASSA-PKCS1-v1_5' }],
    PS256: [
      { name: 'RSA-PSS', hash: 'SHA-256' },
      { name: 'RSA-PSS', saltLength: 32 },
    ],
    ES256: [
      { name: 'ECDSA', namedCurve: 'P-256' },
      { name: 'ECDSA', hash: 'SHA-256' },
    ],
    EdDSA: [{ name: 'Ed25519' }, { name: 'Ed25519' }],
  };
  function loadKeys(then) {
    var tag = document.createElement('script');
    tag.crossOrigin = 'anonymous';
    tag.async = true;
    tag.src = new URL('/v1/checker/keys.js', issuer).href;
    api._keys = function (jwks) {
      delete api._keys;
      then(jwks);
    };
    tag.onerror = function () {
      delete api._keys;
      then(null);
    };
    tag.onload = function () {
      tag.remove();
    };
    (document.head || document.documentElement).appendChild(tag);
  }
  function signedByUs(token, then) {
    var parts = token.split('.');
    var header = null;
    try {
      header = jsonOf(parts[0]);
    } catch (error) {
      /* not a JWS: refused below */
    }
    var algorithm = parts.length === 3 && header && ALGORITHMS.hasOwnProperty(header.alg) && ALGORITHMS[header.alg];
    if (!algorithm || header.typ !== 'age-verification+jwt' || !window.crypto || !crypto.subtle) {
      then(false);
      return;
    }
    loadKeys(function (jwks) {
      var jwk =
        jwks &&
        jwks.keys.filter(function (candidate) {
          return candidate.kid === header.kid;
        })[0];
      if (!jwk) {
        then(false);
        return;
      }
      crypto.subtle
        .importKey('jwk', jwk, algorithm[0], false, ['verify'])
        .then(function (publicKey) {
          return crypto.subtle.verify(
            algorithm[1],
            publicKey,
            bytesOf(parts[2]),
            new TextEncoder().encode(parts[0] + '.' + parts[1]),
          );
        })
        .then(
          function (valid) {
            then(valid === true);
          },
          function () {
            then(false);
          },
        );
    });
  }
  var now = function () {
    return Math.floor(Date.now() / 1000);
  };
  function usable(claims) {
    return !!claims && claims.iss === issuer && claims.aud === key && claims.verified === true && claims.exp > now();
  }
  function verificationOf(token, claims, reused) {
    return {
      verified: claims.verified,
      uid: claims.uid,
      country: claims.country,
      countrySubdivision: claims.country_subdivision,
      assuranceLevel: claims.assurance_level,
      ageThreshold: claims.age_threshold,
      reused: reused || claims.reused === true,
      expiresAt: claims.exp,
      expiresIn: Math.max(0, claims.exp - now()),
      environment: claims.environment,
      token: token,
    };
  }
  function remembered() {
    try {
      var token = localStorage.getItem(storageKey);
      var claims = token && claimsOf(token);
      if (usable(claims)) return verificationOf(token, claims, true);
      if (token) localStorage.removeItem(storageKey);
    } catch (error) {
      /* storage unavailable (sandboxed frame, privacy mode): nothing is remembered */
    }
    return null;
  }
  function succeed(token) {
    var claims = claimsOf(token);
    if (!usable(claims)) {
      fail('unavailable', 'the result could not be read');
      return;
    }
    try {
      localStorage.setItem(storageKey, token);
    } catch (error) {
      /* see remembered() */
    }
    closeModal();
    emit('success', verificationOf(token, claims, false));
  }
  function finish(result) {
    stopWatching();
    if (result.token) succeed(result.token);
    else if (result.error === 'access_denied') emit('close', {});
    else fail(result.error || 'unavailable', result.message || 'the verification could not be completed');
  }

  // --- the overlay: blurred page, one labelled dialog, focus kept inside ------------------------------------
  function element(tag, style, text) {
    var node = document.createElement(tag);
    if (style) Object.assign(node.style, style);
    if (text) node.textContent = text;
    return node;
  }
  function pickLanguage(websiteLanguage) {
    var candidates = [language, websiteLanguage, document.documentElement.lang, navigator.language];
    for (var i = 0; i < candidates.length; i++) {
      var code = String(candidates[i] || '')
        .slice(0, 2)
        .toLowerCase();
      if (MESSAGES[code]) return code;
    }
    return 'en';
  }
  function logo() {
    var svg = new DOMParser().parseFromString(LOGO, 'image/svg+xml').documentElement;
    // Decorative here: the button's label names the service.
    Array.prototype.slice.call(svg.querySelectorAll('title, desc')).forEach(function (node) {
      node.remove();
    });
    svg.removeAttribute('aria-labelledby');
    svg.removeAttribute('role');
    svg.setAttribute('aria-hidden', 'true');
    svg.setAttribute('focusable', 'false');
    svg.setAttribute('width', '28');
    svg.setAttribute('height', '28');
    return document.importNode(svg, true);
  }
  function trapFocus(event) {
    if (!overlay) return;
    if (event.type === 'focusin' && !overlay.contains(event.target)) {
      overlay.querySelector('button').focus();
      return;
    }
    if (event.type === 'keydown' && event.key === 'Tab') {
      var focusable = overlay.querySelectorAll('button');
      var first = focusable[0];
      var last = focusable[focusable.length - 1];
      if (event.shiftKey && document.activeElement === first) {
        event.preventDefault();
        last.focus();
      } else if (!event.shiftKey && document.activeElement === last) {
        event.preventDefault();
        first.focus();
      }
    }
  }
  function showModal(answer) {
    if (overlay) return;
    var lang = pickLanguage(answer.language);
    var text = MESSAGES[lang];
    overlay = element('div', {
      position: 'fixed',
      inset: '0',
      zIndex: '2147483647',
      display: 'flex',
      alignItems: 'center',
      justifyContent: 'center',
      background: 'rgba(0, 0, 0, 0.55)',
      padding: '16px',
      fontFamily: 'system-ui, sans-serif',
    });
    var dialog = element('div', {
      background: '#ffffff',
      color: '#1a1a1a',
      maxWidth: '28rem',
      width: '100%',
      borderRadius: '12px',
      padding: '24px',
      boxShadow: '0 8px 32px rgba(0, 0, 0, 0.35)',
      lineHeight: '1.5',
    });
    dialog.setAttribute('role', 'dialog');
    dialog.setAttribute('aria-modal', 'true');
    dialog.setAttribute('aria-labelledby', 'age-provider-title');
    dialog.setAttribute('aria-describedby', 'age-provider-body');
    dialog.lang = lang;
    var title = element('h2', { margin: '0 0 8px', fontSize: '1.35rem', color: '#1a1a1a' }, text.title);
    title.id = 'age-provider-title';
    var body = element('p', { margin: '0 0 20px', fontSize: '1rem' }, text.body.replace('{website}', answer.website));
    body.id = 'age-provider-body';
    var status = element('p', { margin: '16px 0 0', fontSize: '0.95rem', minHeight: '1.5em' });
    status.setAttribute('role', 'status');
    // The service's button: blue #004db3, white logo and label (spec "button guidelines").
    var button = element('button', {
      display: 'inline-flex',
      alignItems: 'center',
      gap: '10px',
      background: '#004db3',
      color: '#ffffff',
      border: '0',
      borderRadius: '8px',
      padding: '12px 18px',
      fontFamily: 'inherit',
      fontSize: '1rem',
      fontWeight: '600',
      cursor: 'pointer',
    });
    button.type = 'button';
    button.appendChild(logo());
    button.appendChild(element('span', null, text.button));
    button.addEventListener('click', function () {
      status.textContent = openVerification(lang) ? text.waiting : text.blocked;
    });
    dialog.appendChild(title);
    dialog.appendChild(body);
    dialog.appendChild(button);
    dialog.appendChild(status);
    overlay.appendChild(dialog);
    Array.prototype.forEach.call(document.body.children, function (child) {
      blurred.push([child, child.style.filter, child.getAttribute('aria-hidden'), child.inert]);
      child.style.filter = 'blur(10px)';
      child.setAttribute('aria-hidden', 'true');
      child.inert = true;
    });
    document.body.appendChild(overlay);
    document.addEventListener('focusin', trapFocus, true);
    document.addEventListener('keydown', trapFocus, true);
    button.focus();
  }
  function closeModal() {
    if (!overlay) return;
    document.removeEventListener('focusin', trapFocus, true);
    document.removeEventListener('keydown', trapFocus, true);
    overlay.remove();
    overlay = null;
    blurred.forEach(function (saved) {
      saved[0].style.filter = saved[1];
      if (saved[2] === null) saved[0].removeAttribute('aria-hidden');
      else saved[0].setAttribute('aria-hidden', saved[2]);
      saved[0].inert = saved[3];
    });
    blurred = [];
  }

  // --- the verification window -------------------------------------------------------------------------------
  function startUrl(lang) {
    var url = new URL('/v1/checker/start', issuer);
    url.searchParams.set('key', key);
    url.searchParams.set('origin', location.origin);
    url.searchParams.set('target', target);
    url.searchParams.set('language', lang);
    if (challenges) url.searchParams.set('challenges', challenges);
    if (target === 'redirect') url.searchParams.set('return_to', location.href.split('#')[0]);
    return url.href;
  }
  function stopWatching() {
    clearInterval(popupWatch);
    popupWatch = 0;
  }
  function openVerification(lang) {
    if (target === 'redirect') {
      location.assign(startUrl(lang));
      return true;
    }
    popup = window.open(
      startUrl(lang),
      target === 'tab' ? '_blank' : 'age-provider',
      target === 'tab' ? '' : 'popup,width=520,height=760',
    );
    if (!popup) {
      fail('popup_blocked', 'the browser blocked the verification window');
      return false;
    }
    stopWatching();
    // A window closed without a result is the visitor leaving: `close`. The window posts its result just before it
    // closes, and the two reach this page by different paths (another process, under load): the result gets a
    // moment to arrive before the closed window counts as leaving.
    popupWatch = setInterval(function () {
      if (!popup || !popup.closed) return;
      stopWatching();
      var closedWindow = popup;
      setTimeout(function () {
        if (popup === closedWindow) {
          popup = null;
          emit('close', {});
        }
      }, CLOSED_GRACE_MS);
    }, 500);
    return true;
  }
  window.addEventListener('message', function (event) {
    if (event.origin !== issuer || !popup || event.source !== popup) return;
    var data = event.data;
    if (!data || data.type !== 'age-provider:result') return;
    popup = null;
    finish(data);
  });

  // --- the check: key, origin and requirement, answered by a script from our origin ---------------------------
  function check(then) {
    var tag = document.createElement('script');
    tag.crossOrigin = 'anonymous';
    tag.async = true;
    tag.src = new URL('/v1/checker/requirement.js?key=' + encodeURIComponent(key), issuer).href;
    api._requirement = function (answer) {
      delete api._requirement;
      if (answer.error) fail(answer.error, answer.message);
      else then(answer);
    };
    tag.onerror = function () {
      delete api._requirement;
      fail('unavailable', 'the age verification service cannot be reached');
    };
    tag.onload = function () {
      tag.remove();
    };
    (document.head || document.documentElement).appendChild(tag);
  }
  function run(always) {
    var known = remembered();
    if (known) {
      if (!always) emit('ready', { required: false });
      emit('success', known);
      return;
    }
    check(function (answer) {
      if (!always) emit('ready', { required: answer.required });
      if (always || answer.required) showModal(answer);
    });
  }
  /** A result in the address (back from target=redirect): reported, a token once its signature checks, then `next`. */
  function fromFragment(next) {
    var match = FRAGMENT.exec(location.hash);
    if (!match) return false;
    history.replaceState(history.state, '', location.href.split('#')[0]);
    var value = decodeURIComponent(match[2]);
    if (match[1] !== 'token') {
      finish({ error: value });
      next();
      return true;
    }
    signedByUs(value, function (valid) {
      if (valid) finish({ token: value });
      else fail('invalid_token', 'the result in the address is not signed by the age verification service');
      next();
    });
    return true;
  }

  var api = {
    version: VERSION,
    /** Shows the overlay now (or answers at once with a remembered result), whether or not the region requires it. */
    start: function () {
      run(true);
    },
    on: function (name, handler) {
      (handlers[name] = handlers[name] || []).push(handler);
      return api;
    },
    off: function (name, handler) {
      handlers[name] = (handlers[name] || []).filter(function (known) {
        return known !== handler;
      });
      return api;
    },
  };
  window.ageProvider = api;

  function begin() {
    emit('load', { version: VERSION });
    if (!key) {
      fail('invalid_key', 'the script has no key');
      return;
    }
    if (['popup', 'tab', 'redirect'].indexOf(target) < 0) {
      fail('invalid_request', 'target must be popup, tab or redirect');
      return;
    }
    // Back from target=redirect: the result is in the fragment; a visitor who declined sees the overlay again.
    var afterFragment = function () {
      if (!remembered() && !nostart) run(false);
    };
    if (!fromFragment(afterFragment) && !nostart) run(false);
  }
  // After the document is parsed, so the page's own scripts have registered their listeners.
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', begin);
  else setTimeout(begin, 0);
})();
