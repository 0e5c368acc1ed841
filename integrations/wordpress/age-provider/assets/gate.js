/* Age Provider for WordPress, in the visitor's browser. It never unlocks anything itself: it hands the service's
 * signed answers (the requirement where the visitor is, the checker's verification result) to this site's server,
 * which checks their signatures and sets its own cookie; then the page is loaded again. */
(function () {
	'use strict';
	var boxes = Array.prototype.slice.call(document.querySelectorAll('[data-age-provider]'));
	if (boxes.length === 0) return;
	var config = JSON.parse(boxes[0].getAttribute('data-age-provider'));
	var wholePage = document.querySelector('.age-provider-page') !== null;

	function say(text) {
		boxes.forEach(function (box) {
			var line = box.querySelector('.age-provider-status');
			if (line) line.textContent = text;
		});
	}

	function post(action, token) {
		var address = config.endpoint + (config.endpoint.indexOf('?') < 0 ? '?' : '&') + 'age_provider=' + action;
		var body = new URLSearchParams();
		body.set('token', token);
		return fetch(address, { method: 'POST', body: body, credentials: 'same-origin', headers: { Accept: 'application/json' } })
			.then(function (response) {
				return response.json().then(function (answer) { return { ok: response.ok, answer: answer }; });
			});
	}

	function reveal() {
		window.location.replace(config.returnTo);
	}

	// Where the visitor need not verify, the service's signed answer lets this server show the content at once.
	say(config.messages.checking);
	var required = fetch(config.requirement, { headers: { Accept: 'application/jwt' }, credentials: 'omit' })
		.then(function (response) {
			if (!response.ok) throw new Error('requirement ' + response.status);
			return response.text();
		})
		.then(function (token) { return post('requirement', token); })
		.then(function (result) {
			say('');
			if (result.ok && result.answer.required === false) {
				reveal();
				return false;
			}
			return true;
		})
		.catch(function () {
			say('');
			return true;
		});

	if (config.mode !== 'checker') return;

	function withChecker(run) {
		if (window.ageProvider) run(window.ageProvider);
		else document.addEventListener('age-provider:load', function () { run(window.ageProvider); }, { once: true });
	}

	document.addEventListener('age-provider:success', function (event) {
		post('unlock', event.detail.token)
			.then(function (result) {
				if (result.ok) reveal();
				else say(config.messages.refused);
			})
			.catch(function () { say(config.messages.failed); });
	});
	document.addEventListener('age-provider:error', function (event) {
		say(event.detail && event.detail.error === 'popup_blocked' ? config.messages.popup : config.messages.failed);
	});
	document.querySelectorAll('[data-age-provider-start]').forEach(function (button) {
		button.addEventListener('click', function () { withChecker(function (checker) { checker.start(); }); });
	});
	// A whole protected page opens the check by itself; a protected part waits for its button.
	if (wholePage) {
		void required.then(function (needed) {
			if (needed) withChecker(function (checker) { checker.start(); });
		});
	}
})();
