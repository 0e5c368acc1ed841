// Selfie capture: the camera preview, one still image drawn to a canvas as JPEG, put into the form's file field.
// Without JavaScript (or a camera) the same form works with the file field alone.
(function () {
  'use strict';
  var form = document.getElementById('selfie-form');
  var camera = document.getElementById('selfie-camera');
  var input = document.getElementById('selfie-image');
  if (!form || !camera || !input) return;
  if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia || typeof DataTransfer === 'undefined') return;

  var video = document.getElementById('selfie-video');
  var still = document.getElementById('selfie-still');
  var canvas = document.getElementById('selfie-canvas');
  var start = document.getElementById('selfie-start');
  var shoot = document.getElementById('selfie-shoot');
  var again = document.getElementById('selfie-again');
  var status = document.getElementById('selfie-status');
  var fileField = document.getElementById('selfie-file-field');
  var stream = null;
  var captured = false;

  camera.hidden = false;

  function stop() {
    if (stream)
      stream.getTracks().forEach(function (track) {
        track.stop();
      });
    stream = null;
  }

  function open() {
    navigator.mediaDevices
      .getUserMedia({ video: { facingMode: 'user', width: { ideal: 1280 }, height: { ideal: 720 } }, audio: false })
      .then(function (media) {
        stream = media;
        video.srcObject = media;
        video.hidden = false;
        still.hidden = true;
        start.hidden = true;
        again.hidden = true;
        shoot.hidden = false;
        fileField.hidden = true;
        input.required = false;
        status.textContent = camera.dataset.ready;
        shoot.focus();
      })
      .catch(function () {
        // No camera or permission refused: the file field stays the way to send a photo.
        status.textContent = camera.dataset.denied;
        fileField.hidden = false;
        input.required = true;
      });
  }

  function take() {
    canvas.width = video.videoWidth;
    canvas.height = video.videoHeight;
    canvas.getContext('2d').drawImage(video, 0, 0, canvas.width, canvas.height);
    canvas.toBlob(
      function (blob) {
        if (!blob) return;
        var transfer = new DataTransfer();
        transfer.items.add(new File([blob], 'selfie.jpg', { type: 'image/jpeg' }));
        input.files = transfer.files;
        captured = true;
        still.src = canvas.toDataURL('image/jpeg', 0.95);
        still.hidden = false;
        video.hidden = true;
        shoot.hidden = true;
        again.hidden = false;
        stop();
        status.textContent = camera.dataset.taken;
        document.getElementById('selfie-submit').focus();
      },
      'image/jpeg',
      0.95,
    );
  }

  start.addEventListener('click', open);
  again.addEventListener('click', function () {
    captured = false;
    input.value = '';
    open();
  });
  shoot.addEventListener('click', take);
  form.addEventListener('submit', function (event) {
    if (fileField.hidden && !captured) {
      event.preventDefault();
      status.textContent = camera.dataset.missing;
    }
    stop();
  });
  window.addEventListener('pagehide', stop);
})();
