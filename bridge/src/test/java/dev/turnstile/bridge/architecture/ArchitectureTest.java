package dev.turnstile.bridge.architecture;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.simpleNameEndingWith;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The rings of the hexagon: only adapters and the composition root touch Vert.x or Kafka, and only
 * the Service Bus adapter and the root touch the Azure SDK.
 *
 * <p>The allow-lists at the end say what each ring may use, so a new kind of leak fails too: the
 * application uses ports, the device-event domain ({@code dev.turnstile.schemas}), metrics and its
 * libraries, never configuration or adapters; an adapter uses ports, configuration, metrics, the
 * domain and its own package, never an application class nor another adapter (except the one JSON
 * Schema compiler). Each caught a leak on main before this change: the HTTP adapter read the
 * identifier rule from {@code AcceptDeviceEventService} and counted through application's {@code
 * BridgeMetrics}, the JSON Schema adapter implemented application's {@code BodyValidator}, and the
 * relay service used configuration's {@code KeyRule}, and the HTTP adapter's device access built
 * and called the credentials and rate limits of the application (issue 11) instead of {@code
 * AuthorizeDeviceRequestUseCase}.
 */
class ArchitectureTest {

  private static final JavaClasses CLASSES =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("dev.turnstile.bridge");

  @Test
  void onlyAdaptersAndTheRootUseVertxOrKafka() {
    noClasses()
        .that()
        .resideOutsideOfPackages("..adapter..")
        .and()
        .doNotHaveSimpleName("BridgeApplication")
        .and()
        .doNotHaveSimpleName("BridgeMain")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("io.vertx..", "org.apache.kafka..", "io.cloudevents.kafka..")
        .check(CLASSES.that(resideOutsideOfPackage("..config..")));
  }

  /**
   * The configuration declares its keys on Kafka's own {@code ConfigDef} and checks pass-through
   * keys against the clients' definitions; it uses nothing else of Kafka, and no Vert.x.
   */
  @Test
  void theConfigurationUsesOnlyKafkasConfigDefinitions() {
    noClasses()
        .that()
        .resideInAPackage("..config..")
        .should()
        .dependOnClassesThat(
            resideInAnyPackage("io.vertx..", "org.apache.kafka..", "io.cloudevents.kafka..")
                .and(not(resideInAPackage("org.apache.kafka.common.config..")))
                .and(not(simpleNameEndingWith("ClientConfig")))
                .and(not(simpleNameEndingWith("ProducerConfig"))))
        .check(CLASSES);
  }

  @Test
  void onlyTheServiceBusAdapterAndTheRootUseTheAzureSdk() {
    noClasses()
        .that()
        .resideOutsideOfPackages("..adapter.servicebus..")
        .and()
        .doNotHaveSimpleName("BridgeApplication")
        .and()
        .doNotHaveSimpleName("BridgeMain")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("com.azure..", "com.microsoft..")
        .check(CLASSES);
  }

  @Test
  void portsDependOnNoAdapterNorApplication() {
    noClasses()
        .that()
        .resideInAPackage("..port..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("..adapter..", "..application..", "..config..")
        .check(CLASSES);
  }

  @Test
  void theApplicationCoreDependsOnNoAdapter() {
    noClasses()
        .that()
        .resideInAnyPackage("..application..", "..config..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("..adapter..")
        .check(CLASSES);
  }

  /** What every ring may use besides Turnstile: the JDK. */
  private static final String[] JDK = {"java..", "javax.."};

  /**
   * The libraries the application is written with: JSON, metrics, logging, CloudEvents' core (not
   * its Kafka binding), the cache and token buckets of the device rate limits, and Nimbus JOSE+JWT
   * for device JWTs and the identity provider's JWK set.
   */
  private static final String[] APPLICATION_LIBRARIES = {
    "com.fasterxml.jackson..",
    "io.micrometer..",
    "org.slf4j..",
    "io.cloudevents",
    "io.cloudevents.core..",
    "io.cloudevents.jackson..",
    "io.cloudevents.rw..",
    "com.github.benmanes.caffeine..",
    "io.github.bucket4j..",
    "com.nimbusds.."
  };

  /** The one adapter other adapters may use, and who uses it. */
  private static final Map<String, List<String>> SHARED_ADAPTERS =
      Map.of("http", List.of("jsonschema"));

  @Test
  void theApplicationUsesOnlyPortsTheDomainMetricsAndItsLibraries() {
    classes()
        .that()
        .resideInAPackage("dev.turnstile.bridge.application..")
        .should()
        .onlyDependOnClassesThat(
            resideInAnyPackage(JDK)
                .or(resideInAnyPackage(APPLICATION_LIBRARIES))
                .or(
                    resideInAnyPackage(
                        "dev.turnstile.bridge.application..",
                        "dev.turnstile.bridge.port..",
                        "dev.turnstile.bridge.metrics..",
                        "dev.turnstile.schemas..")))
        .check(CLASSES);
  }

  @Test
  void portsUseOnlyTheDomainAndTheTypesTheyCarry() {
    classes()
        .that()
        .resideInAPackage("dev.turnstile.bridge.port..")
        .should()
        .onlyDependOnClassesThat(
            resideInAnyPackage(JDK)
                .or(
                    resideInAnyPackage(
                        "dev.turnstile.bridge.port..",
                        "dev.turnstile.schemas..",
                        "com.fasterxml.jackson.databind..",
                        "io.cloudevents")))
        .check(CLASSES);
  }

  @ParameterizedTest
  @ValueSource(strings = {"http", "kafka", "servicebus", "jsonschema"})
  void anAdapterUsesPortsConfigurationMetricsTheDomainAndItsOwnPackageOnly(String adapter) {
    String own = "dev.turnstile.bridge.adapter." + adapter + "..";
    DescribedPredicate<JavaClass> allowed =
        resideOutsideOfPackage("dev.turnstile..")
            .or(
                resideInAnyPackage(
                    own,
                    "dev.turnstile.bridge.port..",
                    "dev.turnstile.bridge.config..",
                    "dev.turnstile.bridge.metrics..",
                    "dev.turnstile.schemas..",
                    "dev.turnstile.runtime.."));
    for (String shared : SHARED_ADAPTERS.getOrDefault(adapter, List.of())) {
      allowed = allowed.or(resideInAPackage("dev.turnstile.bridge.adapter." + shared + ".."));
    }
    classes().that().resideInAPackage(own).should().onlyDependOnClassesThat(allowed).check(CLASSES);
  }

  @Test
  void everyAdapterPackageHasItsAllowList() {
    Set<String> adapters = new TreeSet<>();
    for (JavaClass c : CLASSES.that(resideInAPackage("dev.turnstile.bridge.adapter.."))) {
      adapters.add(
          c.getPackageName().substring("dev.turnstile.bridge.adapter.".length()).split("\\.")[0]);
    }
    assertThat(adapters).containsExactlyInAnyOrder("http", "kafka", "servicebus", "jsonschema");
  }

  @Test
  void theApplicationNeverUsesConfigurationOrAdapters() {
    noClasses()
        .that()
        .resideInAPackage("dev.turnstile.bridge.application..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("dev.turnstile.bridge.config..", "dev.turnstile.bridge.adapter..")
        .check(CLASSES);
  }
}
