package dev.turnstile.bridge.application.auth;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DeviceCredentialsFileTest {

  @TempDir Path dir;

  @Test
  void aMissingFileSaysHowToMakeIt() {
    Path missing = dir.resolve("device-credentials");

    assertThatThrownBy(() -> DeviceCredentialsFile.load(missing))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no credentials file " + missing)
        .hasMessageContaining("turnstile device-token <device-id> --append " + missing);
  }
}
